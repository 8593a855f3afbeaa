"""Two panels a careless plugin could ship: one whose drawing raises, one whose module is gone.
Loaded beside the toy package by the dashboard panel test (RAGDESK_PLUGINS)."""

from core.panels import DashboardPanel, register_panel

register_panel(DashboardPanel("toy-broken", "Broken toy panel", render="tests.plugins.toy.shelves_panel:broken"))
register_panel(DashboardPanel("toy-missing", "Missing toy panel", render="tests.plugins.toy.not_there:render"))
