/*
 * pool.c - a fixed pool of threads that run queued tasks in order.
 *
 * Every command reads, parses, computes and writes in the same order
 * whatever -j is: tasks only fill memory that the caller then uses in
 * its own order (lines parsed ahead, records formatted, groups of
 * MS-GRPO), so the output does not depend on which thread ran what.  A
 * waiting caller runs queued tasks itself rather than sleep, so -j N
 * keeps N threads busy, and a pool of one thread is the plain loop.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "pool.h"

#define POOL_MAX	256	/* threads at most */

struct pool {
	pthread_mutex_t		 mu;
	pthread_cond_t		 more;		/* a task was queued, or stop */
	pthread_cond_t		 finished;	/* a task is done */
	struct pool_task	*head, *tail;
	int			 waiting;	/* callers in pool_wait() */
	int			 stop;
	int			 n;		/* threads in all */
	int			 started;	/* workers running */
	pthread_t		 tid[POOL_MAX];
};

int
pool_cores(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	else if ((n = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		n = 1;
	return n > POOL_MAX ? POOL_MAX : (int)n;
}

/* The next queued task, or NULL; with mu held. */
static struct pool_task *
pop(struct pool *p)
{
	struct pool_task *t = p->head;

	if (t != NULL && (p->head = t->next) == NULL)
		p->tail = NULL;
	return t;
}

/* Runs t, and says it is done; with mu held, released meanwhile. */
static void
run(struct pool *p, struct pool_task *t)
{
	pthread_mutex_unlock(&p->mu);
	t->fn(t->arg);
	pthread_mutex_lock(&p->mu);
	t->done = 1;
	if (p->waiting > 0)
		pthread_cond_broadcast(&p->finished);
}

static void *
worker(void *arg)
{
	struct pool *p = arg;
	struct pool_task *t;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		if ((t = pop(p)) != NULL) {
			run(p, t);
			continue;
		}
		if (p->stop)
			break;
		pthread_cond_wait(&p->more, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*
 * A pool of n threads in all (the caller's counts: n - 1 are started,
 * fewer when no more can be); NULL when out of memory.
 */
static struct pool *
pool_new(int n)
{
	struct pool *p;

	if (n > POOL_MAX)
		n = POOL_MAX;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->n = n < 1 ? 1 : n;
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p);
		return NULL;
	}
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->finished, NULL);
	while (p->started < p->n - 1 && pthread_create(&p->tid[p->started],
	    NULL, worker, p) == 0)
		p->started++;
	/* Fewer threads than asked for only make it slower. */
	p->n = p->started + 1;
	return p;
}

static struct pool *the_pool;

struct pool *
pool_run(void)
{
	return the_pool;
}

void
pool_start(int n)
{
	pool_stop();
	if (n == 0)
		n = pool_cores();
	if (n > 1)
		the_pool = pool_new(n);
}

void
pool_stop(void)
{
	struct pool *p = the_pool;
	int i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->started; i++)
		pthread_join(p->tid[i], NULL);
	pthread_cond_destroy(&p->more);
	pthread_cond_destroy(&p->finished);
	pthread_mutex_destroy(&p->mu);
	free(p);
	the_pool = NULL;
}

int
pool_threads(const struct pool *p)
{
	return p == NULL ? 1 : p->n;
}

void
pool_submit(struct pool *p, struct pool_task *t)
{
	t->done = 0;
	t->next = NULL;
	if (p == NULL || p->started == 0) {
		t->fn(t->arg);
		t->done = 1;
		return;
	}
	pthread_mutex_lock(&p->mu);
	if (p->tail != NULL)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = t;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->mu);
}

void
pool_wait(struct pool *p, struct pool_task *t)
{
	struct pool_task *q;

	if (p == NULL || p->started == 0)
		return;
	pthread_mutex_lock(&p->mu);
	while (!t->done) {
		if ((q = pop(p)) != NULL) {
			run(p, q);
			continue;
		}
		p->waiting++;
		pthread_cond_wait(&p->finished, &p->mu);
		p->waiting--;
	}
	pthread_mutex_unlock(&p->mu);
}
