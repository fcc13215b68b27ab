#ifndef LATCHKEY_CSQLITE_H
#define LATCHKEY_CSQLITE_H
#include <sqlite3.h>
#endif
