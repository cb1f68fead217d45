"""One module per genre family: the directive rules each genre adds."""
