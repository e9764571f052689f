/*
 * backend.c - the CPU backend, and the switch to CUDA when it is built in
 * (RLADV_CUDA, from make CUDA=1).  The estimators' arithmetic is shared
 * with the GPU through advmath.h, advmath_ms.h and advmath_lw.h, so both
 * sides compute the same numbers.
 */
#include "backend.h"
#include "backend_cuda.h"

static int use_cuda;

int
backend_has_cuda(void)
{
#ifdef RLADV_CUDA
	return 1;
#else
	return 0;
#endif
}

int
backend_select(enum device dev, struct diag *d)
{
	use_cuda = 0;
	if (dev == DEV_CPU)
		return 0;
#ifdef RLADV_CUDA
	{
		char why[256];

		if (backend_cuda_available(why, sizeof(why))) {
			use_cuda = 1;
			return 0;
		}
		if (dev == DEV_CUDA)
			return diag_set(d, EXIT_USAGE, "--device cuda: no "
			    "usable GPU (%s); use --device cpu or auto", why);
	}
#else
	if (dev == DEV_CUDA)
		return diag_set(d, EXIT_USAGE, "--device cuda: this rladv was "
		    "built without CUDA; rebuild with make CUDA=1, or use "
		    "--device cpu");
#endif
	return 0;
}

int
backend_advantages(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
#ifdef RLADV_CUDA
	if (use_cuda) {
		int rc = backend_cuda_advantages(e, ap, v, adv, d);

		if (rc <= 0)
			return rc < 0 ? d->status : 0;
		/* rc > 0: no kernel for this estimator; the CPU does it. */
	}
#endif
	return advantage_run(e, v, ap, adv, d);
}

int
backend_loss_weights(const struct prefs *c, const struct batch *v,
    const double *adv, double *w, struct diag *d)
{
#ifdef RLADV_CUDA
	if (use_cuda) {
		int rc = backend_cuda_loss_weights(c->loss, &c->lp,
		    c->scope_group, v, adv, w, d);

		if (rc <= 0)
			return rc < 0 ? d->status : 0;
	}
#else
	(void)d;
#endif
	loss_weights_apply(c->loss, v, c->scope_group, adv, &c->lp, w);
	return 0;
}
