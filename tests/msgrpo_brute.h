/*
 * msgrpo_brute.h - MS-GRPO straight from the definition (SPEC §3,
 * MS-GRPO Eq. 3-6), subset by subset, for the tests only.  Slow on purpose:
 * it shares nothing with src/msgrpo*.c but the header's enums.
 */
#ifndef RLADV_MSGRPO_BRUTE_H
#define RLADV_MSGRPO_BRUTE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "msgrpo.h"

#define BRUTE_MAXG	20

/*
 * abar[tau * G + i] = Abar_i(tau) for tau = 2..G: the mean over every
 * subgroup S of size tau containing i of (r_i - mu_S) / (sigma_S + eps).
 * A subgroup of equal rewards, or (token stats) with no weight, gives 0.
 * With token stats a subgroup whose weighted members share one reward
 * (the others weigh 0) has that reward as its mean, exactly, and
 * deviation 0.
 */
static void
brute_abar(const double *r, const double *T, size_t G, int token,
    double eps, double *abar)
{
	double sum[BRUTE_MAXG + 1], n[BRUTE_MAXG + 1];
	uint32_t m;
	size_t i, j, tau;

	for (i = 0; i < (G + 1) * G; i++)
		abar[i] = 0.0;
	for (i = 0; i < G; i++) {
		for (tau = 0; tau <= G; tau++)
			sum[tau] = n[tau] = 0.0;
		for (m = 0; m < (uint32_t)1 << G; m++) {
			double w = 0.0, s = 0.0, v = 0.0, mu, wr = 0.0;
			int equal = 1, wequal = 1;

			if (!((m >> i) & 1))
				continue;
			tau = 0;
			for (j = 0; j < G; j++) {
				if (!((m >> j) & 1))
					continue;
				tau++;
				if (r[j] != r[i])
					equal = 0;
				if (!token || T[j] > 0.0) {
					if (w == 0.0)
						wr = r[j];
					else if (r[j] != wr)
						wequal = 0;
				}
				w += token ? T[j] : 1.0;
				s += (token ? T[j] : 1.0) * r[j];
			}
			n[tau] += 1.0;
			if (equal || w == 0.0)
				continue;
			mu = wequal ? wr : s / w;
			for (j = 0; j < G; j++)
				if ((m >> j) & 1)
					v += (token ? T[j] : 1.0) *
					    (r[j] - mu) * (r[j] - mu);
			sum[tau] += (r[i] - mu) / (sqrt(v / w) + eps);
		}
		for (tau = 2; tau <= G; tau++)
			abar[tau * G + i] = sum[tau] / n[tau];
	}
}

static double
brute_weight(enum ms_weights wk, size_t G, int tau_min, size_t tau)
{
	if (wk == MS_GLOBAL)
		return (double)tau - tau_min + 1;
	if (wk == MS_LOCAL)
		return (double)(G - tau + 1);
	return 1.0;
}

/* A_i = sum_tau w_tau Abar_i(tau), weights normalized; 0 if G < tau_min. */
static void
brute_msgrpo(const double *r, const double *T, size_t G, int tau_min,
    enum ms_weights wk, int token, double eps, double *adv)
{
	double abar[(BRUTE_MAXG + 1) * BRUTE_MAXG], ws = 0.0;
	size_t i, tau;

	for (i = 0; i < G; i++)
		adv[i] = 0.0;
	if (G < (size_t)tau_min)
		return;
	brute_abar(r, T, G, token, eps, abar);
	for (tau = tau_min; tau <= G; tau++)
		ws += brute_weight(wk, G, tau_min, tau);
	for (i = 0; i < G; i++)
		for (tau = tau_min; tau <= G; tau++)
			adv[i] += brute_weight(wk, G, tau_min, tau) / ws *
			    abar[tau * G + i];
}

#endif
