"""Who may use ragdesk: accounts, sessions, sign-in throttling and the access rules."""
