from flue_build.cli import main

raise SystemExit(main())
