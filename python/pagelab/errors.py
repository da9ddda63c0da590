"""Errors a user can act on. The command line prints them as one line, without a traceback."""


class PagelabError(Exception):
    """A problem with the user's input: a file, an argument or a configuration key."""
