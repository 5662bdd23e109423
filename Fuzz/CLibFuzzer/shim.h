// libFuzzer's entry for programs that have their own main (SwiftPM gives every executable
// one): it parses the flags, calls LLVMFuzzerInitialize, then runs `callback` on each input.
// Provided by -sanitize=fuzzer's runtime; only the FUZZING build calls it.
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
