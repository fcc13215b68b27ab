#ifndef LATCHKEY_CLIBCBOR_H
#define LATCHKEY_CLIBCBOR_H
#include <cbor.h>
#endif
