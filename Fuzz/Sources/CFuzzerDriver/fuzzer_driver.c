#include "fuzzer_driver.h"

// libFuzzer's entry point for programs with their own main (compiler-rt's FuzzerInterface.h).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int latchkey_fuzz_run(int argc, char **argv, latchkey_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
