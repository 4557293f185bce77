"""The Discord layer: thin. It parses interactions, calls the service and renders replies."""
