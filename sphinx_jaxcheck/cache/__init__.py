"""Outcomes kept between builds: the cache key, the stored entries, and their size on disk."""
