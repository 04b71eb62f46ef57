"""A ``sphinx.ext.doctest`` group's setup or cleanup code: it must print nothing, and when
the setup fails the rest of its group does not run."""

from __future__ import annotations

from ..model import GroupCode
from .scripts import ScriptRules


class GroupCodeRules(ScriptRules):
    def __init__(self, kind: GroupCode) -> None:
        self.kind = kind

    def stops_its_group(self) -> bool:
        return self.kind.setup
