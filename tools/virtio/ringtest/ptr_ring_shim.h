/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Just enough of the kernel to build include/linux/ptr_ring.h, unchanged, in
 * userspace, for ringtest's ptr_ring and tools/testing/selftests/ptr_ring, at
 * the kernel's costs: main.h's barriers (on arm64 smp_wmb() is "dmb ishst",
 * READ_ONCE() a plain load), 64-byte cache lines as on x86-64 and arm64, so
 * struct ptr_ring and r->batch are the kernel's, aligned allocations that
 * honour __GFP_ZERO and are otherwise poisoned, as slab debugging does, and
 * x86-64's KMALLOC_MAX_SIZE; but spinlocks with no preempt count, BH or IRQ
 * disabling.  Under ThreadSanitizer, which models neither volatile accesses
 * nor fences, READ_ONCE()/WRITE_ONCE() are acquire/release atomics, and
 * data_race() hides the access, as KCSAN's does.  Nothing on x86 can tell
 * whether smp_wmb() is there: x86 does not reorder stores.
 *
 * Define PTR_RING_H to test another copy of the header.
 */
#ifndef PTR_RING_SHIM_H
#define PTR_RING_SHIM_H

#include <errno.h>
#include <pthread.h>
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
	__tsan_ignore_thread_begin();			\
	__auto_type __v = (expr);			\
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

/* glibc's and musl's cannot fail on a valid, private lock */
#define spin_lock_init(lock) \
	pthread_spin_init(lock, PTHREAD_PROCESS_PRIVATE)
#define spin_lock(lock)			pthread_spin_lock(lock)
#define spin_unlock(lock)		pthread_spin_unlock(lock)
#define spin_lock_bh(lock)		spin_lock(lock)
#define spin_unlock_bh(lock)		spin_unlock(lock)
#define spin_lock_irq(lock)		spin_lock(lock)
#define spin_unlock_irq(lock)		spin_unlock(lock)
#define spin_lock_irqsave(lock, flags)	((flags) = 0, spin_lock(lock))
#define spin_unlock_irqrestore(lock, flags) ((void)(flags), spin_unlock(lock))

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	void *p;

	if ((size && n > (size_t)-1 / size) ||
	    posix_memalign(&p, SMP_CACHE_BYTES, n * size))
		return NULL;
	memset(p, gfp & __GFP_ZERO ? 0 : POISON_INUSE, n * size);
	return p;
}

#define kfree				free
#define kvmalloc_array			kmalloc_array
#define kvfree				free

/* v6.10 and later call the _noprof allocators through alloc_hooks() */
#define kmalloc_array_noprof		kmalloc_array
#define kvmalloc_array_noprof		kvmalloc_array
#define alloc_hooks(expr)		(expr)

#ifndef PTR_RING_H
#define PTR_RING_H "../../../include/linux/ptr_ring.h"
#endif
#include PTR_RING_H

#endif /* PTR_RING_SHIM_H */
