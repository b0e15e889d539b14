/* A getrandom() for the user-mode Linux process that dpusim runs (docs/linux.md, "Determinism").
 *
 * UML seeds its random pool from the host: arch/um/include/asm/archrandom.h takes
 * arch_get_random_longs() from os_getrandom(), the C library's getrandom(). Preloaded into the
 * kernel's process, this one returns a stream derived from DPUSIM_LINUX_SEED (the platform's
 * seed) instead, so IP IDs, hash seeds and every other random choice of the guest replay with
 * the run. The kernel itself is unmodified. SplitMix64 (Steele, Lea, Flood: "Fast splittable
 * pseudorandom number generators", OOPSLA 2014). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static uint64_t state;
static int seeded;

static uint64_t next(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
  (void)flags;
  if (!seeded) {
    const char *s = getenv("DPUSIM_LINUX_SEED");
    state = s ? strtoull(s, NULL, 10) : 0;
    seeded = 1;
  }
  unsigned char *p = buf;
  for (size_t i = 0; i < len; i += 8) {
    uint64_t v = next();
    memcpy(p + i, &v, len - i < 8 ? len - i : 8);
  }
  return (ssize_t)len;
}
