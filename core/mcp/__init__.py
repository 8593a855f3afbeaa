"""The MCP server: the operation registry's tools over stdio and streamable HTTP."""
