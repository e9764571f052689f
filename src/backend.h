/*
 * backend.h - where a batch's numbers are computed: the CPU, or CUDA when
 * built with make CUDA=1.  The caller owns every array, results
 * included; device memory is the CUDA backend's own.
 */
#ifndef RLADV_BACKEND_H
#define RLADV_BACKEND_H

#include "advantage.h"
#include "diag.h"
#include "options.h"

/* Chooses the device for --device; status 2 when cuda cannot be had. */
int	backend_select(enum device dev, struct diag *d);
/* Advantages of a batch by estimator e, on the chosen device. */
int	backend_advantages(const struct estimator *e, struct adv_params *ap,
	    const struct batch *v, double *adv, struct diag *d);
/* Loss weights of a batch, from its advantages, on the chosen device. */
int	backend_loss_weights(const struct prefs *c, const struct batch *v,
	    const double *adv, double *w, struct diag *d);
/* Whether this build has the CUDA backend. */
int	backend_has_cuda(void);

#endif
