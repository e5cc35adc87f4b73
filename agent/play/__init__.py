"""What runs games: the in-process dealer, duplicate tournaments, the replay runner, shadow scoring."""
