"""Plumbing shared by the core and the satellites: whole writes and capped reads of files
(:mod:`._utils.files`), calls split into subtasks and stopped at once on threads, pools and clusters
(:mod:`._utils.executors`)."""
