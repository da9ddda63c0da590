"""Errors a user can act on. The command line prints them as one line, without a traceback."""


class PagelabError(ValueError):
    """A problem with the user's input: a file, an argument or a configuration key.

    A `ValueError`, so that code catching bad values catches these too.
    """
