// The SQLite C API at its plainest, for comparison with the `sqlite` store: the same schema, index, pragmas
// (WAL, synchronous=FULL, default cache) and transactions of 10,000 rows; data of the same shape, generated
// before the timed loop. Then a scan reading every column.
//
//   cc -O2 c-baseline.c -o c-baseline -lsqlite3
//   ./c-baseline 1000000 1      # with the (priority, isInStock, title) index
//   ./c-baseline 1000000 0      # without it
//
// Measured on the machine of this directory's report, right after it: 67k inserts/s with the index and
// 477k/s without; scans 1.61M and 2.01M rows/s.
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t state = 42;
static uint64_t next(void) {  // SplitMix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s RECORDS WITH_INDEX(0|1)\n", argv[0]); return 2; }
    int n = atoi(argv[1]), withIndex = atoi(argv[2]);
    const char *path = "c-baseline.sqlite";
    remove(path);
    remove("c-baseline.sqlite-wal");
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL", 0, 0, 0);
    sqlite3_exec(db, "CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT NOT NULL, notes TEXT NOT NULL, "
                     "isInStock BOOLEAN NOT NULL, priority INTEGER, price DOUBLE NOT NULL, createdAt DOUBLE NOT NULL)",
                 0, 0, 0);
    if (withIndex) sqlite3_exec(db, "CREATE INDEX i ON item(priority, isInStock, title)", 0, 0, 0);

    char (*titles)[41] = malloc((size_t)n * 41), (*notes)[201] = malloc((size_t)n * 201);
    for (int i = 0; i < n; i++) {
        int tl = 8 + next() % 33, nl = next() % 201;
        for (int j = 0; j < tl; j++) titles[i][j] = 'a' + next() % 26;
        for (int j = 0; j < nl; j++) notes[i][j] = 'a' + next() % 26;
        titles[i][tl] = 0;
        notes[i][nl] = 0;
    }

    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "INSERT INTO item (id, title, notes, isInStock, priority, price, createdAt) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &st, 0);
    double start = now();
    for (int i = 0; i < n; i++) {
        if (i % 10000 == 0) sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0);
        sqlite3_bind_int64(st, 1, i + 1);
        sqlite3_bind_text(st, 2, titles[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, notes[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, next() % 10 < 7);
        if (next() % 4 == 3) sqlite3_bind_null(st, 5); else sqlite3_bind_int64(st, 5, next() % 3);
        sqlite3_bind_double(st, 6, (next() % 100000) / 100.0);
        sqlite3_bind_double(st, 7, 1577836800.0 + i);
        if (sqlite3_step(st) != SQLITE_DONE) { fprintf(stderr, "%s\n", sqlite3_errmsg(db)); return 1; }
        sqlite3_reset(st);
        if (i % 10000 == 9999 || i == n - 1) sqlite3_exec(db, "COMMIT", 0, 0, 0);
    }
    printf("insert: %.0f rows/s\n", n / (now() - start));
    sqlite3_finalize(st);
    sqlite3_close(db);

    sqlite3_open(path, &db);
    sqlite3_prepare_v2(db, "SELECT id, title, notes, isInStock, priority, price, createdAt FROM item ORDER BY id",
                       -1, &st, 0);
    start = now();
    long rows = 0;
    uint64_t sum = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *title = sqlite3_column_text(st, 1), *note = sqlite3_column_text(st, 2);
        sum += sqlite3_column_int64(st, 0) + sqlite3_column_bytes(st, 1) + title[0] + sqlite3_column_bytes(st, 2)
            + (note ? note[0] : 0) + sqlite3_column_int64(st, 3) + sqlite3_column_type(st, 4)
            + (uint64_t)sqlite3_column_double(st, 5) + (uint64_t)sqlite3_column_double(st, 6);
        rows++;
    }
    printf("scan: %.0f rows/s (checksum %lu)\n", rows / (now() - start), (unsigned long)(sum & 0xFFFF));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return 0;
}
