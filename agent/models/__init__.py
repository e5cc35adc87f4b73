"""Opponent modelling (seeds 002, 004): each player's decayed counts in the twelve and the
fine contexts (:mod:`.frequencies`), the predictors read from them — twelve contexts,
back-off to the population, the meta-predictor (:mod:`.prediction`), the learned predictor
and seed 004's network (:mod:`.learned`, :mod:`.network`) — and the model store the engine
reads them through (:mod:`.opponent_model`). Between the game and the engine: the engine
reads the models, the database keeps them."""
