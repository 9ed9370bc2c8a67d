"""Formats other programs read and write: GNU Backgammon's ``.mat`` match files
(:mod:`fastnardy.formats.mat`) and pictures of the board (:mod:`fastnardy.formats.svg`)."""
