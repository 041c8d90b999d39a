graph [
  meta [ name "x" list [ a 1 b 2.0 c "s" ] ]
  node [ id -5 ]
  node [ id 9223372036854775807 ]
  edge [ source -5 target 9223372036854775807 weight inf ]
]
