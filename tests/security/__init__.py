"""The product's threat model as tests: each module is one attacker, each test one attack that fails.

- test_engine_surface.py — a plain user against every public Engine method (introspected)
- test_secrets.py        — keys at rest, in CLI output, in logs, in chat errors; key rotation
- test_handoff.py        — a local process or user against the CLI hand-off socket
- test_handoff_limits.py — idle or flooding connections, deeply nested JSON, a stale socket after SIGTERM
- test_ssrf.py           — internal addresses via the allow-list, redirects, YouTube, other schemes
- test_limits.py         — bad names, huge inputs, chunk explosions, look-alike names, terminal escapes
- test_one_guard.py      — IPv6 forms of metadata addresses, over-wide allow-list entries, rebinding
                           names, the web search engine and Google Drive endpoints, all one guard
- test_accounts.py       — parallel password guessing, the change-password form, look-alike user names
- test_data_folder.py    — another local user who made (or can write) the data folder, its key or DB

Also part of it, kept beside the code they test: tests/parsers/test_url.py (every private
address form, DNS rebinding, TLS to the pinned address) and tests/parsers/test_zipguard.py
(zip bombs in Office files). docs/security.md says what is protected, from whom.
"""
