"""The ``gostop`` command line: thin, parses, calls the library, renders."""
