# fastnardy._dice: the kernel's dice and choice streams, splitmix64 (inline: cimported by
# self-play in _batches and by _gamebatch's running games, the same streams in both).
# Game ``stream`` of a run seeded ``seed`` throws its dice from splitmix64(seed) ^ stream *
# 0xD6E8FEB86659FD93, and the random policy chooses from a stream apart, so that the dice do
# not depend on the turns chosen. fastnardy.basics (dice_states, dice, DiceStream) throws
# the same dice in Python: Game, rollouts and matches.

from libc.stdint cimport uint64_t


cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    """splitmix64: the same stream on every machine."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline int rng_below(uint64_t* state, int n) noexcept nogil:
    """A number from 0 to n - 1 (multiply-shift on the top 32 bits)."""
    return <int>(((rng_next(state) >> 32) * <uint64_t>n) >> 32)


cdef inline uint64_t stream_state(uint64_t base, uint64_t stream) noexcept nogil:
    """The first dice state of game ``stream``; ``base`` is rng_next of the seed."""
    return base ^ (stream * <uint64_t>0xD6E8FEB86659FD93)


cdef inline uint64_t choice_state(uint64_t dice_state) noexcept nogil:
    """The random policy's stream of the game whose dice start at ``dice_state``."""
    cdef uint64_t state = dice_state ^ <uint64_t>0x5851F42D4C957F2D
    rng_next(&state)
    return state


cdef inline int opening_throw(uint64_t* state, int* white, int* black) noexcept nogil:
    """T6: one die each, white's first, ties thrown again; 0 if white moves first, else 1."""
    white[0] = black[0] = 0
    while white[0] == black[0]:
        white[0] = 1 + rng_below(state, 6)
        black[0] = 1 + rng_below(state, 6)
    return 0 if white[0] > black[0] else 1
