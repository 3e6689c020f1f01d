/*
 * bench_c's shared parts: the workload table's entry, the map every workload is given, the
 * clock, a row of figures, and the checks and queries the workloads share (common.c). The
 * table is in main.c; each family of workloads has its file, whose top says what each measures
 * and how it is checked.
 */
#ifndef ASTAR_BENCH_C_H
#define ASTAR_BENCH_C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "astar.h"

/* One map of the run, as every workload is given it. */
typedef struct bench_map {
    const char *path;       /* the .map file (some workloads load fresh copies) */
    const char *name;       /* its base name: the <map> of the figure lines */
    astar_grid *grid;       /* loaded once per map; a workload leaves its terrain as it found it */
    astar_search *search;   /* the map's workspace, shared by its workloads */
    const astar_scen *scen; /* its problems, after --sample or ASTAR_BENCH_EVERY */
    bool first;             /* the run's first map (influence runs once, on it) */
} bench_map;

/* A workload: its name (in --workloads, and in most of its figure lines), its run on one map,
 * which prints its rows and returns its mismatches (any makes the exit status 1), and what it
 * prints after the last map (NULL: nothing). */
typedef struct bench_workload {
    const char *name;
    int (*run)(const bench_map *m);
    void (*totals)(void);
} bench_workload;

/* The clock of the timings: the wall (monotonic), or the process's CPU time when
 * ASTAR_BENCH_CLOCK=cpu, the clock Lua's os.clock reads (bench.lua --forms sets it, to compare
 * like with like on a shared machine, whose waits only the wall clock counts; not for many). */
void clock_from_env(void);
double now(void);
/* CPU time of the whole process, every thread: with the wall time, how many cores a call got. */
double cpu_now(void);

/* A whole file, malloc'd; NULL when it cannot be read. */
char *read_file(const char *path, size_t *len);
/* A Moving AI map; NULL when it cannot be read or parsed (err says why when it was read). */
astar_grid *load_grid(const char *path, char *err, size_t errlen);
int cmp_double(const void *a, const void *b);
/* The middle of n values (sorted in place). */
double median_of(double *v, size_t n);

/* A row: the time of each query (room for one per problem), their sum, expansions, mismatches. */
typedef struct stats {
    size_t n;
    double *times;
    double total;
    unsigned long long expansions;
    int mismatches;
} stats;

stats stats_new(const astar_scen *sc); /* empty, with room for every problem of sc */
void stats_free(stats *st);
void stats_add(stats *st, double dt, uint64_t expansions);
/* Adds from's counts, time and mismatches (not its times) to a total over the maps. */
void stats_sum(stats *total, const stats *from);
double median(stats *st);
/* One astar_find, timed and added to st. */
astar_status timed_find(stats *st, astar_search *s, astar_grid *g, const astar_query *q, astar_result *res);

/* A row of the table, and its figure lines: figure c <workload> <map> <name> <value>. */
void report(const char *workload, const char *map, stats *st);
/* A total over the maps (map "all"), when it counted any problem. */
void report_all(const char *workload, const stats *all);

/* A cost equal to the scenario's optimum, within its precision. */
bool tolerant_equal(double cost, const astar_scenario *p);
/* Both endpoints walkable: the workloads skip a problem with a blocked one. */
bool endpoints_open(astar_grid *g, const astar_scenario *p);
/* The scenario's query: A* (JPS off) without dead ends, unless ASTAR_BENCH_DEAD_ENDS=1. */
void query_for(astar_query *q, const astar_scenario *p);
/* The influence layer of the workloads that use one: a quarter of the cells, in blocks of 8,
 * valued 0.5 .. 2 (bench/bench.lua and bench/doors.lua build the same). */
astar_layer *danger_layer(int32_t w, int32_t h);
/* The plain workload's query of one problem (its endpoints open), timed and checked against the
 * optimum into st; and of every problem (landmarks runs them too). */
void plain_query(const bench_map *m, const astar_scenario *p, stats *st);
void plain_queries(const bench_map *m, stats *st);

/* The workloads, by file (main.c's table lists them in the order they run). */
int plain_run(const bench_map *m); /* grid.c */
void plain_totals(void);
int islands_run(const bench_map *m);
int field_run(const bench_map *m);
int interests_run(const bench_map *m);
int many_run(const bench_map *m);
void many_totals(void);
int penalties_run(const bench_map *m); /* penalties.c */
void penalties_totals(void);
int classes_run(const bench_map *m); /* penalties.c */
void classes_totals(void);
int size1_run(const bench_map *m); /* penalties.c */
int size2_run(const bench_map *m);
int size3_run(const bench_map *m);
void size1_totals(void);
void size2_totals(void);
void size3_totals(void);
int influence_run(const bench_map *m);
astar_status bench_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res); /* graph.c: the problems' finds, for callgrind.sh */
int refastar_run(const bench_map *m); /* refastar.c */
void refastar_totals(void);
int graph_run(const bench_map *m); /* graph.c */
void graph_totals(void);
int landmarks_run(const bench_map *m); /* builds.c */
int builds_run(const bench_map *m);
int hierarchy_run(const bench_map *m);
int repair_run(const bench_map *m); /* repair.c */
int deadends_run(const bench_map *m); /* deadends.c */
void deadends_totals(void);
int doors_run(const bench_map *m); /* doors.c */
int jps_run(const bench_map *m); /* jps.c */
int jps4_run(const bench_map *m);
int jpsplus_run(const bench_map *m);
int jpsplus4_run(const bench_map *m);
void jps_totals(void);
void jps4_totals(void);
void jpsplus_totals(void);
void jpsplus4_totals(void);

#endif
