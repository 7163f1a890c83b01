"""``python -m xuezhan``: the same command line as the ``xuezhan`` script."""

from xuezhan.cli import main

if __name__ == "__main__":
    main(prog_name="xuezhan")
