"""Verdicts -> what people and CI read: findings, the summary, the report formats, the matrix."""
