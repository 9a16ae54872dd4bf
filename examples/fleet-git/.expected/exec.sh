# The fleet story on per-cluster git repositories (story.sh), its
# transcript written to story.txt: drafts for four clusters, edge01's
# reviewed, edited on its draft and approved, the catalog's revision 2, a
# new draft keeping the edit. The repositories are made by make-repos.sh
# in a temporary folder, read and written as local clones (--repo-map).
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
./make-repos.sh "$tmp"
./story.sh "$tmp" >story.txt
