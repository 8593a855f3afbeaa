"""A plugin's dashboard panel declaration (core/panels.py): what it accepts, the title in the
reader's language, who it is open to, and that the toy's registers through the registry alone."""

from __future__ import annotations

import pytest

from core.panels import DashboardPanel, dashboard_panels, register_panel
from core.plugins import DASHBOARD_PANELS


def test_the_toy_panel_is_registered_by_the_toy_package():
    [toy] = [p for p in dashboard_panels() if p.name == "toy-shelves"]
    assert toy.render == "tests.plugins.toy.shelves_panel:render" and toy.access == "admin"
    assert (toy.title_in("zh"), toy.title_in("en"), toy.title_in("fr")) == ("玩具书架", "Toy shelves", "Toy shelves")
    assert toy.open_to(is_admin=True) and not toy.open_to(is_admin=False)


@pytest.mark.parametrize("bad", [
    dict(name="Has Space"), dict(name=""), dict(name="a.b"),
    dict(render="no_colon"), dict(render="mod:"), dict(render="mod:fn()"),
    dict(access="guest"), dict(title={}),
])
def test_a_bad_declaration_is_refused_at_import(bad):
    fields = dict(name="ok", title="Ok", render="pkg.mod:draw") | bad
    with pytest.raises(ValueError):
        DashboardPanel(**fields)


def test_a_name_taken_twice_is_refused():
    first = DashboardPanel("twice", "Twice", render="pkg.mod:draw")
    register_panel(first)
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_panel(DashboardPanel("twice", "Other", render="pkg.other:draw"))
        assert DashboardPanel("one", {"zh": "只有中文"}, render="m:f").title_in("en") == "只有中文"
        assert DashboardPanel("one", "Everyone", render="m:f").open_to(is_admin=False)
    finally:
        DASHBOARD_PANELS.unregister("twice")
