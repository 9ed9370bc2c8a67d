# fastnardy._dice: the kernel's dice and choice streams, splitmix64 (inline: cimported by
# self-play in _batches and by _gamebatch's running games, the same stream in both).

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
