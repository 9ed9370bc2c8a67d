"""Formats other programs read and write: GNU Backgammon's SGF (:mod:`fastnardy.formats.sgf`)
and ``.mat`` match files (:mod:`fastnardy.formats.mat`; long nardy's too), any record file
by its kind (:mod:`fastnardy.formats.games`), the position ids of the field, eXtreme
Gammon's XGID and GNU Backgammon's Match ID (:mod:`fastnardy.formats.ids`), and pictures of
the board (:mod:`fastnardy.formats.svg`)."""
