# C-level API of the selective-sampling simulator (evaluator_pyx._simulate; [sampling-1999]
# "An Expected Value Based Betting Strategy", [loki2-1999] §5).
#
# A SimSpot is one post-flop decision of ours, in numbers: seats, chips, the round's
# betting so far, our cards and the board, each opponent's context frequencies (or a fixed
# triple) and our own betting parameters. sim_run_c plays `trials` trials (or until the
# obvious-move cut-off or the time budget stops it) and sums the chips each of our lines
# wins from now on: line 0 = we check/call now, line 1 = we bet/raise now. Fold is 0.
# Nothing here allocates per trial or touches Python objects.
from libc.stdint cimport uint64_t

from evaluator_pyx._rollout cimport AliasTable, Rng

cdef enum:
    SIM_MAX_SEATS = 10
    SIM_CONTEXTS = 12
    SIM_FOLD = 0
    SIM_CALL = 1
    SIM_RAISE = 2

ctypedef struct SimSpot:
    int n                               # seats
    int me                              # our seat
    int order[SIM_MAX_SEATS]            # seats in post-flop acting order (first to act first)
    int stack[SIM_MAX_SEATS]            # chips behind now
    int put[SIM_MAX_SEATS]              # chips put in this hand so far
    int bet[SIM_MAX_SEATS]              # chips put in this round so far
    int folded[SIM_MAX_SEATS]
    int acted[SIM_MAX_SEATS]            # has acted this round since the last bet or raise
    int round                           # 1 flop, 2 turn, 3 river
    int level                           # the highest bet this round
    int raises                          # bets made this round (counted toward the cap)
    int max_bets
    int small_bet
    int big_bet
    int cap_heads_up                    # 0: no cap while at most two players can bet
    uint64_t hole                       # our cards
    uint64_t board                      # the board now (3-5 cards)
    int hole_index                      # our holding's HOLDINGS index
    int fixed[SIM_MAX_SEATS]            # 1: this seat plays fixed_triple whatever it holds
    double fixed_triple[SIM_MAX_SEATS][3]
    double freq[SIM_MAX_SEATS][SIM_CONTEXTS][3]   # (fold, call, raise) per context
    int use_thresholds                  # 1: thresholds below replace the percentile reading
    double thresholds[SIM_MAX_SEATS][SIM_CONTEXTS][2]  # strength to fold below, to raise above
    double bet_threshold                # our own later actions: the formula strategy
    double raise_threshold
    double reraise_step
    double width                        # half-width of our ramps
    double opp_width                    # half-width of an opponent's ramps
    double opp_mix                      # share of its best hands an opponent only calls with

ctypedef struct SimResult:
    long trials
    long redeals                        # deals thrown back for card conflicts
    double sum[2]                       # chips won from now on: check/call, bet/raise
    double sumsq[2]
    int stopped_early                   # 1: the obvious-move cut-off ended the run

# tables[seat]: that opponent's alias table (built with dead = our hole | board); unused
# for our seat and folded seats. can_fold / can_raise: whether folding and bet/raise are
# legal for us now (a line that is not legal is not played). min_trials before the
# cut-off is tried; budget_s <= 0: no time limit. strengths_now: every holding's strength
# on the present board (NULL: hand strength against one random holding). Returns 0, or
# -1 when no consistent deal was found.
cdef int sim_run_c(const SimSpot* s, const AliasTable* const* tables, long trials,
                   long min_trials, double budget_s, int can_fold, int can_raise,
                   Rng* rng, SimResult* out, const double* strengths_now=*) noexcept nogil
