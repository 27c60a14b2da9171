/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal userspace environment for include/linux/ptr_ring.h.
 *
 * ptr_ring.h only includes kernel headers under __KERNEL__, so no include
 * guard has to be pre-defined and no kernel header is pulled in: it is
 * enough to provide the handful of kernel primitives the header uses, then
 * include the tree's own header, unchanged.  This works with the v6.12 and
 * later versions of the header.
 *
 * Memory ordering is expressed with the compiler's __atomic builtins, so
 * the shims are correct on weakly ordered architectures and visible to
 * ThreadSanitizer, not just "good enough on x86":
 *
 *  - READ_ONCE() is a consume load.  ptr_ring relies on the address
 *    dependency from the pointer read in __ptr_ring_peek() to the data it
 *    points to; C11 can only express that as memory_order_consume, which
 *    compilers implement as acquire (a plain load on x86).
 *  - WRITE_ONCE() is a relaxed atomic store.
 *  - smp_wmb() is a release fence.  C11 has no store-store fence; a
 *    release fence orders all earlier accesses before later stores, which
 *    includes what smp_wmb() promises (a compiler barrier on x86).
 *  - data_race() marks accesses that are racy by design; under
 *    ThreadSanitizer they are excluded from race detection, as with KCSAN.
 *    Older versions of the header (v6.12, for one) do not annotate them,
 *    and a ThreadSanitizer build against those reports the producer's check
 *    of a slot racing with the consumer clearing it.
 *  - spinlock_t is a test-and-test-and-set lock with acquire/release.
 */
#ifndef __PTR_RING_TEST_H
#define __PTR_RING_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Userspace has no __aligned(); spell the attribute through a helper. */
#define __ptr_ring_attr(a)		__attribute__((a))

#define SMP_CACHE_BYTES			64
#define ____cacheline_aligned_in_smp	__ptr_ring_attr(__aligned__(SMP_CACHE_BYTES))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

static inline void barrier(void)
{
	__asm__ __volatile__("" : : : "memory");
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("pause" : : : "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" : : : "memory");
#else
	barrier();
#endif
}

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_CONSUME)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE) /* see above */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE) /* see above */
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE) /* see above */

#ifndef __has_feature
#define __has_feature(x) 0
#endif

#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

#define data_race(expr) ({	/* not checked by ThreadSanitizer */	\
	__tsan_ignore_thread_begin();					\
	__auto_type __v = (expr);					\
	__tsan_ignore_thread_end();					\
	__v;								\
})
#else
#define data_race(expr) ({ expr; })	/* racy by design, see above */
#endif

/* Test-and-test-and-set: acquire on lock, release on unlock. */
struct ptr_ring_test_spinlock {
	int locked;
};

#define spinlock_t struct ptr_ring_test_spinlock

static inline void spin_lock_init(spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELAXED);
}

static inline void spin_lock(spinlock_t *lock)
{
	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			cpu_relax();
}

static inline void spin_unlock(spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

/* No interrupts or softirqs in userspace. */
#define spin_lock_irq(lock)		spin_lock(lock)
#define spin_unlock_irq(lock)		spin_unlock(lock)
#define spin_lock_bh(lock)		spin_lock(lock)
#define spin_unlock_bh(lock)		spin_unlock(lock)
#define spin_lock_irqsave(lock, flags)		\
	do {					\
		(flags) = 0;			\
		spin_lock(lock);		\
	} while (0)
#define spin_unlock_irqrestore(lock, flags)	\
	do {					\
		(void)(flags);			\
		spin_unlock(lock);		\
	} while (0)

#define gfp_t			unsigned int
#define GFP_KERNEL		0u
#define __GFP_ZERO		0x100u

/* The x86-64 default, which limits a ring to 512K entries. */
#define KMALLOC_MAX_SIZE	(4UL * 1024 * 1024)

#define alloc_hooks(expr)	(expr)

/* calloc() checks n * size for overflow and always zeroes. */
static inline void *kmalloc_array_noprof(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n, size);
}

#define kvmalloc_array_noprof(n, size, gfp) kmalloc_array_noprof(n, size, gfp)
#define kfree(p)		free(p)
#define kvfree(p)		free(p)

#ifndef PTR_RING_H
#define PTR_RING_H "../../../../include/linux/ptr_ring.h"
#endif
#include PTR_RING_H

#endif /* __PTR_RING_TEST_H */
