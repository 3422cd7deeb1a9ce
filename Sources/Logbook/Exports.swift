@_exported import LogStore
