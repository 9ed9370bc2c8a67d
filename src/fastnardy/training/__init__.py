"""Training: the labels a trainer learns from (:mod:`fastnardy.training.labels`, by a
network's search or GNU Backgammon, here or on a cluster). The trainers that fit the shipped
networks are ``examples/train_teacher.py`` and ``examples/train_td.py``; how each network
was made is in ``docs/weights.md``."""
