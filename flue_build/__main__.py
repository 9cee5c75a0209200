from flue_build.cli import main

__all__: list[str] = []


raise SystemExit(main())
