/*
 * pool.h - the threads of -j: tasks run in the order they were queued,
 * on N - 1 workers and on the thread that waits for one.  The pool owns
 * its threads; a task and what it points to stay the caller's, and must
 * live until pool_wait() has returned for it.
 */
#ifndef RLADV_POOL_H
#define RLADV_POOL_H

struct pool;

struct pool_task {
	void			(*fn)(void *arg);
	void			*arg;
	/* The pool's: */
	int			 done;
	struct pool_task	*next;
};

/* Threads in all (1 for a NULL pool). */
int		 pool_threads(const struct pool *p);
/* Queues t (fn and arg set).  A NULL pool runs it at once. */
void		 pool_submit(struct pool *p, struct pool_task *t);
/* Returns when t has run, running queued tasks in the meantime. */
void		 pool_wait(struct pool *p, struct pool_task *t);
/* The number of threads -j 0 (the default) means: the cores this
 * process may run on. */
int		 pool_cores(void);

/*
 * The run's pool, which every module that hands out work shares: made by
 * pool_start() with n threads in all (0: pool_cores(); the caller's
 * counts, so n - 1 are started), once the options are read (main.c);
 * NULL (one thread: a task runs when it is queued) before, after
 * pool_stop() (which ends its threads), with n = 1, or out of memory.
 */
struct pool	*pool_run(void);
void		 pool_start(int n);
void		 pool_stop(void);

#endif
