/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Just enough of the kernel to build include/linux/ptr_ring.h, unchanged,
 * in userspace: ringtest's ptr_ring benchmark and the ptr_ring selftest
 * (tools/testing/selftests/ptr_ring) both include this file.
 *
 * The costs are meant to be the kernel's:
 *  - barrier(), cpu_relax(), smp_wmb(), READ_ONCE() and WRITE_ONCE() are
 *    those of main.h: on x86 smp_wmb() is a compiler barrier, on arm64
 *    "dmb ishst"; READ_ONCE() is a plain (volatile) load, as in a kernel
 *    built without LTO, not an acquire.
 *  - SMP_CACHE_BYTES is 64, as L1_CACHE_BYTES on x86-64 and arm64, so the
 *    struct ptr_ring layout and r->batch are the kernel's.
 *  - Allocations are cache-line aligned.  __GFP_ZERO is honoured, and
 *    anything else is poisoned as slab debugging would: a ring that
 *    forgot __GFP_ZERO sees garbage slots, as in the kernel.
 *  - KMALLOC_MAX_SIZE is x86-64's with 4K pages (4 MiB), which caps a ring
 *    at 512K entries.
 *  - Spinlocks are pthread spinlocks; there is no preempt count, no BH or
 *    IRQ disabling, and the lock calls are inlined, so the _bh, _irq and
 *    _irqsave variants cost what spin_lock() does: figures are lower
 *    bounds of the kernel's.
 *
 * ThreadSanitizer models neither volatile accesses nor standalone fences,
 * so under it READ_ONCE() and WRITE_ONCE() become acquire and release
 * atomics (stronger than the kernel's) and data_race() hides the access,
 * as KCSAN's does.  No run-time check on x86 can tell whether smp_wmb() is
 * there: x86 does not reorder stores, and neither can ThreadSanitizer.
 *
 * Define PTR_RING_H to test another copy of the header.
 */
#ifndef PTR_RING_SHIM_H
#define PTR_RING_SHIM_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "main.h"

/* main.h's cpu_relax() asserts elsewhere (checkpatch: arch defines needed) */
#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__) && \
	!defined(__s390x__)
#undef cpu_relax
#define cpu_relax() barrier()
#endif

#define SMP_CACHE_BYTES			64
/* Userspace has no __aligned() (checkpatch: this defines it) */
#ifndef __aligned
#define __aligned(x)			__attribute__((__aligned__(x)))
#endif
#define ____cacheline_aligned_in_smp	__aligned(SMP_CACHE_BYTES)
#define KMALLOC_MAX_SIZE		(4UL << 20)

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#ifndef __has_feature
#define __has_feature(x) 0
#endif

#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

#undef READ_ONCE
#undef WRITE_ONCE
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELEASE)
/* data_race(): racy by design, hidden from the sanitizer as from KCSAN */
#define data_race(expr) ({				\
	__auto_type __v = ({				\
		__tsan_ignore_thread_begin();		\
		(expr);					\
	});						\
	__tsan_ignore_thread_end();			\
	__v;						\
})
#else
/* data_race(): racy by design; nothing checks races here */
#define data_race(expr) (expr)
#endif

/* The kernel's types (checkpatch: these typedefs mirror the kernel's) */
typedef pthread_spinlock_t spinlock_t;
typedef unsigned int gfp_t;

#define GFP_KERNEL	0u
#define __GFP_ZERO	0x100u
#define POISON_INUSE	0x5a	/* as in include/linux/poison.h */

static inline void spin_lock_init(spinlock_t *lock)
{
	int ret = pthread_spin_init(lock, PTHREAD_PROCESS_PRIVATE);

	assert(!ret);
}

static inline void spin_lock(spinlock_t *lock)
{
	int ret = pthread_spin_lock(lock);

	assert(!ret);
}

static inline void spin_unlock(spinlock_t *lock)
{
	int ret = pthread_spin_unlock(lock);

	assert(!ret);
}

#define spin_lock_bh(lock)		spin_lock(lock)
#define spin_unlock_bh(lock)		spin_unlock(lock)
#define spin_lock_irq(lock)		spin_lock(lock)
#define spin_unlock_irq(lock)		spin_unlock(lock)
#define spin_lock_irqsave(lock, flags)	do { (flags) = 0; spin_lock(lock); } while (0)
#define spin_unlock_irqrestore(lock, flags) \
	do { (void)(flags); spin_unlock(lock); } while (0)

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	void *p;

	if (posix_memalign(&p, SMP_CACHE_BYTES, size ? size : 1))
		return NULL;
	memset(p, gfp & __GFP_ZERO ? 0 : POISON_INUSE, size);
	return p;
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return kmalloc(n * size, gfp);
}

static inline void kfree(void *p)
{
	free(p);
}

#define kvmalloc_array			kmalloc_array
#define kvfree				kfree

/* v6.10 and later call the _noprof allocators through alloc_hooks() */
#define kmalloc_array_noprof		kmalloc_array
#define kvmalloc_array_noprof		kvmalloc_array
#define alloc_hooks(expr)		(expr)

#ifndef PTR_RING_H
#define PTR_RING_H "../../../include/linux/ptr_ring.h"
#endif
#include PTR_RING_H

#endif /* PTR_RING_SHIM_H */
