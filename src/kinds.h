/*
 * kinds.h - the enumerations that choose arithmetic: which estimator,
 * which deviation scope, which MS-GRPO scale weights, which loss mode.
 * Types only, nothing to own.  Plain C that advmath*.h, the estimator and
 * loss tables and the CUDA kernels all include, so that a kernel switches
 * on the very values the tables hold rather than on a copy of them.
 */
#ifndef RLADV_KINDS_H
#define RLADV_KINDS_H

/*
 * An estimator's kind (the "kind" column of advantage_table): what the
 * code switches on, so that no caller compares names.  One per row.
 */
enum est_kind {
	EST_GRPO, EST_DRGRPO, EST_RLOO, EST_SAN, EST_STRATIFIED, EST_MSGRPO,
	EST_OPO, EST_RPP_BASELINE, EST_RPP, EST_PASSK, EST_GPG, EST_REMAX,
	EST_LOO, EST_GRPO_WHITEN, EST_GDPO
};

/* The bit of kind k in a set of kinds (adv_params' single). */
#define EST_BIT(k)	(1u << (k))

/*
 * How a batch is whitened over its trained tokens (rpp-baseline, rpp,
 * grpo-whiten; the presets choose): verl's masked_whiten (variance with
 * N - 1, sqrt(v + var_eps)), OpenRLHF's and NeMo-RL's (population
 * variance, floored at var_eps, then rsqrt), or AReaL's Normalization
 * (deviation with N - 1, plus std_eps).
 */
enum whiten_kind { WHITEN_VERL, WHITEN_CLAMP, WHITEN_STD };

/* Whose deviation divides GN: the group's, the batch's, or none
 * (--std-scope). */
enum std_scope { STD_GROUP, STD_BATCH, STD_NONE };

/*
 * MS-GRPO's scale weights w_tau (--ms-weights): the three schemes of its
 * Table 6a, the naive flat average of that table's first line (every
 * subgroup counts once: w_tau proportional to C(G-1, tau-1)), and a list
 * the user gives (Eq. 6).  The kernels take the first three only.
 */
enum ms_weights { MS_UNIFORM, MS_GLOBAL, MS_LOCAL, MS_FLAT, MS_GIVEN };

/* A loss mode's kind (the "kind" column of loss_weights_table). */
enum advmath_lw_kind {
	ADVMATH_LW_TOKEN, ADVMATH_LW_SEQ, ADVMATH_LW_SEQ_SUM,
	ADVMATH_LW_SEQ_SUM_NORM, ADVMATH_LW_BALANCED, ADVMATH_LW_BALANCED_GEN,
	ADVMATH_LW_PROMPT
};

#endif
