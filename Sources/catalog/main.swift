import CatalogCLI

CatalogCommand.run()
