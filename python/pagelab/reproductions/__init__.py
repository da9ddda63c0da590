"""One module per paper experiment. Each defines NAME, PAPER, TITLE and run(ctx)."""
