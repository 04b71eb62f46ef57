"""A ``sphinx.ext.doctest`` group's setup or cleanup code: judged as the group's examples
are, it must print nothing, and when the setup fails the rest of its group does not run."""

from __future__ import annotations

from ..model import GroupCode
from .page_examples import PageExamplesRules


class GroupCodeRules(PageExamplesRules):
    """The rules of a group's setup or cleanup code (see :class:`.protocol.Kind`)."""

    def __init__(self, kind: GroupCode) -> None:
        self.kind = kind

    def stops_its_group(self) -> bool:
        return self.kind.setup
