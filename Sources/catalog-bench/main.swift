import CatalogCLI

CommandLineTool.run(BenchCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
