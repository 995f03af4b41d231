#ifndef IAPDESK_CLIBFUZZER_H
#define IAPDESK_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for programs with their own main (clang's FuzzerInterface.h); the symbol comes
/// from the runtime that `-sanitize=fuzzer` links in.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
