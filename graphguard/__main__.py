from graphguard.main import main

raise SystemExit(main())
