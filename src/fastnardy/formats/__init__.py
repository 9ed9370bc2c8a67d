"""Formats other programs read and write: GNU Backgammon's ``.mat`` match files
(:mod:`fastnardy.formats.mat`), the position ids of the field, eXtreme Gammon's XGID and GNU
Backgammon's Match ID (:mod:`fastnardy.formats.ids`), and pictures of the board
(:mod:`fastnardy.formats.svg`)."""
