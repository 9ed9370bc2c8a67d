# The C-level declarations that the single-file kernel's _kernel.pxd held, gathered from the
# modules that hold them now (see the docstring of _kernel.pyx), for code that cimports
# them from fastnardy._kernel. New code cimports from those modules directly.

from fastnardy._packed cimport (NB_MAX_DEPTH, NB_TURN_SLOTS, nb_board, nb_board_from_key,
                                nb_build, nb_check_key, nb_entry, nb_rules, nb_swap_key)
from fastnardy._movegen cimport nb_ctx, nb_generate, nb_slot, nb_tslot
from fastnardy._perftcount cimport nb_count, nb_perft, nb_tt, nb_tt_entry
