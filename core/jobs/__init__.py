"""One durable job queue in the database for every long operation (issue 20).

``queue``: claim, heartbeat, re-queue of a dead worker's job, cancel, wait. ``kinds``: what each
kind of job does. ``worker``: the worker threads (the dashboard's, or ``python -m core worker``).
``submit``: enqueueing with only the database and the blob folder (works while another process
holds the vector store). ``futures``: the ``Future`` of each ``Engine.submit_*``. ``leader``: one
scheduler at a time across processes.
"""
