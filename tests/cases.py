"""Blocks written once, rendered as both reStructuredText and MyST documents."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """One block: its name, options, body, and the status it must get."""

    name: str
    body: str
    status: str
    options: dict[str, str] = field(default_factory=dict)


def rst_block(case: Case, suffix: str) -> str:
    options = {"name": case.name + suffix, **case.options}
    lines = [".. jaxcheck::"]
    lines += [f"   :{key}: {value}".rstrip() for key, value in options.items()]
    lines.append("")
    lines += [f"   {line}".rstrip() for line in case.body.strip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def md_block(case: Case, suffix: str) -> str:
    options = {"name": case.name + suffix, **case.options}
    lines = ["```{jaxcheck}"]
    lines += [f":{key}: {value}".rstrip() for key, value in options.items()]
    lines.append("")
    lines += case.body.strip("\n").split("\n")
    lines.append("```")
    return "\n".join(lines) + "\n"


def documents(cases: list[Case], title: str = "Cases") -> dict[str, str]:
    """``cases_rst.rst`` and ``cases_md.md`` holding the same blocks in order."""
    rst = f"{title}\n{'=' * len(title)}\n\n" + "\n".join(rst_block(c, "-rst") for c in cases)
    md = f"# {title}\n\n" + "\n".join(md_block(c, "-md") for c in cases)
    return {"cases_rst.rst": rst, "cases_md.md": md}


def statuses(app: object) -> dict[str, str]:
    """Block name -> verdict status, from the environment of a finished build."""
    domain = app.env.get_domain("jaxcheck")  # type: ignore[attr-defined]
    found = {}
    for docname in domain.documents_with_blocks():
        for block in domain.blocks(docname):
            verdict = domain.verdict(docname, block.index)
            found[block.label] = verdict.status.value if verdict else "none"
    return found
