"""Google Drive: per-user OAuth connection, a Drive v3 client, and Drive as a synced source.

One package on the plugin contract, registered like an outside plugin (docs/plugins.md):
``source_kind`` (the ``gdrive`` kind, SOURCES), ``drive_service`` (``engine.services.drive``: the
``gdrive_*`` operations and the ``gdrive_import`` job kind, PLUGIN_SERVICES), ``errors``. Its
tables (``models``) stay in core's revision chain, where users' databases already have them.
Importing the package registers nothing: each registry imports the module it lists.
"""
