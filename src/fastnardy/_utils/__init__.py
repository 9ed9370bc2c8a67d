"""Plumbing shared by the core and the satellites: whole writes and capped reads of files
(:mod:`._utils.files`), work abandoned on executors (:mod:`._utils.executors`)."""
