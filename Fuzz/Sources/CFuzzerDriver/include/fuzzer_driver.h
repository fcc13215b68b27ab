#ifndef LATCHKEY_FUZZER_DRIVER_H
#define LATCHKEY_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Called by libFuzzer with each input; returns 0.
typedef int (*latchkey_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer (its command line in `argc`/`argv`) over `callback` and returns its exit status.
/// Needs a program linked with `-sanitize=fuzzer`, whose main is the program's own.
int latchkey_fuzz_run(int argc, char **argv, latchkey_fuzz_callback callback);

#endif
