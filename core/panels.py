"""A plugin's dashboard panel: a page of its own in the dashboard's navigation.

A plugin declares the panel here, in core's terms, and writes the drawing code in its own module:

    register_panel(DashboardPanel("bookmarks", {"en": "Bookmarks", "zh": "书签"},
                                  render="bookmarks_plugin.panel:render", access="admin"))

``render`` names ``module:function``; only the dashboard imports it (core never imports the UI
toolkit), and calls ``function(engine, actor)`` on a page of its own at ``/plugin-<name>``. The
function works through engine operations, which check the actor as every caller's calls are
checked; ``access`` only decides who sees the page in the menu and who may open it ("admin": admins
only; "user": everyone signed in). A panel that fails to import or raises shows an error box on its
own page; the rest of the dashboard is untouched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from core.plugins import DASHBOARD_PANELS

PanelAccess = Literal["admin", "user"]
_RENDER = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


@dataclass(frozen=True)
class DashboardPanel:
    name: str  # the page's address word: /plugin-<name>
    title: str | Mapping[str, str]  # one title, or one per language code ("en", "zh")
    render: str  # "package.module:function", called as function(engine, actor)
    access: PanelAccess = "user"
    icon: str = ":material/extension:"

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"a dashboard panel's name is 1 to 40 lower-case letters, digits or '-' (got {self.name!r})")
        if not _RENDER.match(self.render):
            raise ValueError(f"a dashboard panel's render is 'module:function' (got {self.render!r})")
        if self.access not in ("admin", "user"):
            raise ValueError(f"a dashboard panel's access is 'admin' or 'user' (got {self.access!r})")
        if isinstance(self.title, Mapping) and not self.title:
            raise ValueError("a dashboard panel needs a title")

    def title_in(self, language: str) -> str:
        """The title in ``language``, else in English, else the first one given."""
        if isinstance(self.title, str):
            return self.title
        return self.title.get(language) or self.title.get("en") or next(iter(self.title.values()))

    def open_to(self, is_admin: bool) -> bool:
        return self.access == "user" or is_admin


def register_panel(panel: DashboardPanel) -> DashboardPanel:
    return DASHBOARD_PANELS.register(panel.name, panel)


def dashboard_panels() -> list[DashboardPanel]:
    """Every registered panel, in the order registered."""
    return [panel for _, panel in DASHBOARD_PANELS.items()]
