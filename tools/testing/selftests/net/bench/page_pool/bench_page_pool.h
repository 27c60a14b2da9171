/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _BENCH_PAGE_POOL_H
#define _BENCH_PAGE_POOL_H

#include <linux/types.h>

unsigned int bench_cross_cpu(u32 pages, const bool *stop);

#endif /* _BENCH_PAGE_POOL_H */
