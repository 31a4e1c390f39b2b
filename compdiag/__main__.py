from compdiag.cli import main

raise SystemExit(main())
